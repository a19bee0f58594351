"""The beyond-accuracy metrics of one :func:`recmetrics.evaluate` call, on the recommended lists.

The lists are read once from the call's inputs (the predictions' top ``k``,
the given ranked lists, or a score matrix's top ``k``), with the relevant
items; each metric then takes the item data its registry entry declares
(``MetricSpec.needs`` in ``recmetrics/metrics/_registry.py``).
"""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._kernels import CHUNK_CELLS
from .._validation import truth_relevance
from ..inputs.forms import _is_relevant_collection, input_form
from ..inputs.lists import _check_eval_frames, _check_eval_matrix, _columns, _read_lists, top_k
from ..metrics import beyond as _beyond

__all__ = ["recommended_lists", "beyond_values"]

# the item data of serendipity under each model of expectedness
_SERENDIPITY_NEEDS = {
    "popularity": ("truth", "popularity"),
    "rank": ("truth", "popularity", "n_items"),
    "history": ("truth", "history", "features"),
}


def beyond_values(call, lists, truth, n_items):
    """Per-user columns and catalogue-level numbers of the call's beyond-accuracy metrics."""
    columns, scalars = {}, {}
    for name, spec, k in call.parsed:
        if spec.kind == "ranking":
            continue
        kw = _keywords_of(call, name, spec, k, truth, n_items)
        if spec.kind == "catalogue":
            scalars[name] = spec.function(lists, **kw)
        else:
            columns[name] = spec.function(lists, per_user=True, **kw)
    return columns, scalars


def _keywords_of(call, name, spec, k, truth, n_items):
    """The keywords one beyond-accuracy metric takes from the call."""
    params = inspect.signature(spec.function).parameters
    kw = {"k": k}
    needs = spec.needs
    if spec.name == "serendipity":
        # the data of the expectedness model in force (the default or the preset's)
        model = _beyond._resolve(
            "serendipity", call.convention, {}, {"expectedness": "popularity"}
        )["expectedness"]
        needs = _SERENDIPITY_NEEDS[model]
    for need in ("popularity", "features", "history"):
        optional = need == "history" and call.item_data[need] is not None
        if need in params and (need in needs or optional):
            if call.item_data[need] is None:
                raise TypeError(
                    f"{name} needs {need}= (see recmetrics.beyond.{spec.function.__name__})"
                )
            kw[need] = call.item_data[need]
    if "n_items" in params and (spec.name != "serendipity" or "n_items" in needs):
        kw["n_items"] = n_items
    if "truth" in params:
        kw["truth"] = truth
    if call.convention is not None and "convention" in params:
        kw["convention"] = call.convention
    return kw


def recommended_lists(call):
    """The recommended lists (read once), the relevant items, and the catalogue size if known.

    For a score matrix the lists hold column positions: with ``items`` (the
    id of each column) they are read as those ids; without, item data must
    be keyed by the positions themselves (checked by recmetrics.beyond).
    """
    y_true, y_score, items = call.y_true, call.y_score, call.item_data["items"]
    form = input_form(y_true, y_score, call.ranks)
    if items is not None and form != "scores":
        raise TypeError(
            "items= applies only to score matrices (it names the item of each column); "
            f"these inputs are {form}, which hold item ids already"
        )
    if form == "frames":
        return _from_frames(call)
    if form == "lists":
        single = _is_relevant_collection(y_score)
        recs = [y_true] if single else y_true
        rel = [y_score] if single else y_score
        truth = [
            [i for i, g in r.items() if g > 0] if isinstance(r, dict) else list(r) for r in rel
        ]
        return _read_lists(recs, name="y_true"), truth, None
    if form == "scores":
        return _from_scores(call, items)
    raise TypeError(
        f"beyond-accuracy metrics need recommended lists (data frames, ranked lists or a score "
        f"matrix); these inputs are {form}"
    )


def _from_frames(call):
    frame = call.frame
    user, item = frame["user"] or "user", frame["item"] or "item"
    relevance = truth_relevance(call.y_true, frame["relevance"])
    _check_eval_frames(call.y_true, call.y_score, user, item, relevance)
    lists = _read_lists(
        call.y_score,
        None,
        user=user,
        item=item,
        rank=frame["rank"],
        score=frame["score"],
        name="predictions",
    )
    truth = call.y_true
    if relevance is not None:
        truth = truth[truth[relevance] > 0]
    return lists, truth.rename(columns={user: "user", item: "item"}), None


def _from_scores(call, items):
    y_true, y_score = call.y_true, call.y_score
    ks = [k for _, spec, k in call.parsed if spec.kind != "ranking"]
    if any(k is None for k in ks):
        raise ValueError(
            "beyond-accuracy metrics of a score matrix need a list length: ask for e.g. "
            "'novelty@10'"
        )
    if not isinstance(y_score, list) and np.ndim(y_score) != 2:
        raise TypeError("beyond-accuracy metrics need one row of scores per user (2-D)")
    S = _check_eval_matrix(y_true, y_score)
    columns = None if items is None else _columns(items, S.shape[1], "y_score")
    lists = _read_lists(top_k(S, max(ks), mask=call.mask), items=columns, n_positions=S.shape[1])
    rows, cols = _relevant_cells(y_true, S.shape)
    col = cols if columns is None else columns.to_numpy()[cols]
    truth = pd.DataFrame({"user": rows, "item": col})
    return lists, truth, S.shape[1]


def _relevant_cells(y_true, shape):
    """Row and column of each relevant (> 0) cell, a block of dense rows at a time."""
    if sp.issparse(y_true):
        T = y_true.tocoo()
        pos = T.data > 0
        return T.row[pos].astype(np.int64), T.col[pos].astype(np.int64)
    T = np.asarray(y_true)
    step = max(1, CHUNK_CELLS // max(shape[1], 1))
    found = [np.nonzero(T[lo : lo + step] > 0) for lo in range(0, shape[0], step)]
    rows = [r + lo for (r, _), lo in zip(found, range(0, shape[0], step), strict=True)]
    if not found:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(rows).astype(np.int64), np.concatenate([c for _, c in found])
