"""Every convention preset side by side: :func:`compare_conventions`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import conventions as _conv
from .._docs import fill_doc
from .._validation import check_choice, check_k
from .core import evaluate

__all__ = ["compare_conventions"]


@fill_doc
def compare_conventions(
    y_true=None, y_score=None, *, k=10, conventions=None, ranks=None, n_items=None, mask=None
) -> pd.DataFrame:
    """P@k, R@k, AP@k, NDCG@k, MRR and AP (no cutoff) under every convention.

    Each number is :func:`recmetrics.evaluate` with ``convention=name``; a
    metric the library does not provide is NaN. The MRR column uses the
    library's own cutoff rule (``mrr@k`` where the library cuts, ``mrr``
    where it does not, as trec_eval's ``recip_rank``).

    Parameters
    ----------
    y_true, y_score : array-like, sequence, set or dict, optional
        Any input form of :func:`recmetrics.evaluate` except a prebuilt
        ``Ranking`` (the presets set the tie policy).
    k : int, default 10
        The cutoff of the ``@k`` columns.
    conventions : sequence of str, optional
        Keys of :data:`recmetrics.conventions.PRESETS` (default: all, in
        their order there).
    %(ranks)s
    %(n_items)s
    %(mask)s

    Returns
    -------
    pandas.DataFrame
        One row per convention, columns ``P@k``, ``R@k``, ``AP@k``,
        ``NDCG@k``, ``MRR`` and ``AP`` (means over users).

    See Also
    --------
    evaluate : One convention at a time.
    recmetrics.conventions.describe : The conventions behind each column.

    References
    ----------
    %(ref_tamm2021)s

    %(ref_trec_eval)s

    %(ref_pedregosa2011)s

    %(ref_bassani2022)s

    Examples
    --------
    >>> y_true = [[1, 0, 1, 1, 0, 0]]
    >>> y_score = [[0.9, 0.8, 0.7, 0.1, 0.2, 0.3]]
    >>> compare_conventions(y_true, y_score, k=2, conventions=["trec_eval", "recbole"]).round(4)
               P@2     R@2    AP@2  NDCG@2  MRR      AP
    trec_eval  0.5  0.3333  0.3333  0.6131  1.0  0.7222
    recbole    0.5  0.3333  0.5000  0.6131  1.0     NaN
    """
    k = check_k(k, "k")
    if conventions is not None and (
        isinstance(conventions, str) or not isinstance(conventions, (list, tuple))
    ):
        raise TypeError(
            f"conventions must be a list of preset names, got {type(conventions).__name__}"
        )
    names = list(_conv.PRESETS) if conventions is None else list(conventions)
    cols = {
        f"P@{k}": ("precision", k),
        f"R@{k}": ("recall", k),
        f"AP@{k}": ("map", k),
        f"NDCG@{k}": ("ndcg", k),
        "MRR": ("mrr", None),
        "AP": ("map", None),
    }
    out = {}
    for name in names:
        check_choice(name, "convention", tuple(_conv.PRESETS))
        sup = _conv.SUPPORTED[name]
        asked = {}
        for col, (base, kk) in cols.items():
            if base == "mrr" and base in sup:
                kk = None if sup[base] == "none" else k
            if (
                base not in sup
                or (sup[base] == "k" and kk is None)
                or (sup[base] == "none" and kk is not None)
            ):
                continue
            asked[col] = base if kk is None else f"{base}@{kk}"
        row = dict.fromkeys(cols, np.nan)
        if asked:
            res = evaluate(
                y_true,
                y_score,
                list(asked.values()),
                convention=name,
                ranks=ranks,
                n_items=n_items,
                mask=mask,
            )
            row.update({col: float(res[m]) for col, m in asked.items()})
        out[name] = row
    table = pd.DataFrame(out).T
    table.index.name = None
    return table
